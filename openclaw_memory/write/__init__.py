"""The write path after capture and extraction: the writer, consolidation, the write policy,
forgetting and edits.
"""
