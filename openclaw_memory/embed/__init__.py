"""Embedders: the bundled multilingual model, its ONNX runtime and file, and the background bank
the relevance gate compares against.
"""
