"""The assembled system: the storage the stages share (the engine), the factory that builds the
stages and the middleware from config, the worker and its jobs.
"""
