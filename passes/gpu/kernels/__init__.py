"""Kernel templates and builders the GPU passes share."""
