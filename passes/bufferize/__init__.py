"""Tensors → buffers, for every target: the passes around upstream's one-shot bufferization
and the steps both target pipelines share (`pipeline.buffer_steps`)."""
