"""The assembled system: the engine, the factory that builds it from config, the hooks, the working
memory, the worker and its jobs, the admin operations.
"""
