"""The write path after capture and extraction: the writer, consolidation, forgetting and edits
(the policy table they read is core/policy.py).
"""
