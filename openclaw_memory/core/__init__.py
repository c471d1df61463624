"""The bottom layer every stage may use: the clock, token counts, progress on a terminal, and the
named switches of rules and channels.
"""
