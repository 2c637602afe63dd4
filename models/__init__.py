"""The shipped tile models (``detector.onnx``, ``reader.onnx``) and their model cards.

A package only so that the ONNX files travel inside the wheel as package data and are found
with :mod:`importlib.resources` wherever the project is installed; the ``.pt`` training
weights stay in the repository for fine-tuning and export and are not installed.
"""
