"""Training, export and evaluation of the two vision models (not needed to read a photo).

Needs the ``train`` extra (ultralytics, torch, onnx). ``vision/`` is the runtime and never imports
from here.
"""
