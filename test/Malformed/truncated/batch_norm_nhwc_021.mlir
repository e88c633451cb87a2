// grow.py truncated of @batch_norm_nhwc: cut after byte 26
func.func @batch_norm_nhwc