"""Run a GPU `Program` through the CUDA driver API (`cuda-bindings`): load its PTX, keep its
intermediate buffers, and launch its kernels on one stream with one synchronisation per call.

No MLIR runtime library ships (`mgpu*`), and none is needed: the host steps are static, so a
loop over them in Python is the whole runtime. Arguments are NumPy arrays (copied to and from
the device) or CUDA tensors/arrays (`__cuda_array_interface__`, e.g. torch CUDA tensors), which
are used in place. Imports neither MLIR nor the rest of Versa.
"""

import ctypes
from collections.abc import Sequence

import numpy as np

from .plan import Copy, Launch, Program, Scalar, View

_CTYPES = {
    "i8": ctypes.c_int8, "i16": ctypes.c_int16, "i32": ctypes.c_int32, "i64": ctypes.c_int64,
    "u16": ctypes.c_uint16, "f32": ctypes.c_float, "f64": ctypes.c_double,
}  # fmt: skip


_DEFAULT_SHARED = 48 << 10  # dynamic shared memory a kernel may take without opting in


class GpuUnavailable(RuntimeError):
    """No CUDA driver or device: GPU programs cannot run here."""


def _driver():
    try:
        from cuda.bindings import driver  # noqa: PLC0415  (optional at import time)
    except ImportError as err:
        raise GpuUnavailable(f"cuda-bindings is not installed ({err})") from None
    return driver


def _check(result):
    """cuda-bindings returns (error, values...): raise on error, return the values."""
    error, *values = result if isinstance(result, tuple) else (result,)
    if int(error) != 0:
        name = _driver().cuGetErrorName(error)[1]
        raise RuntimeError(f"CUDA error {name.decode() if isinstance(name, bytes) else name}")
    return values[0] if len(values) == 1 else values


_CONTEXT: list = []


def context():
    """The primary context of device 0 (the one PyTorch uses too), made current."""
    driver = _driver()
    if not _CONTEXT:
        try:
            _check(driver.cuInit(0))
            device = _check(driver.cuDeviceGet(0))
        except Exception as err:  # cuInit raises (not returns) when no driver library exists
            raise GpuUnavailable(f"no CUDA device is available: {err}") from None
        _CONTEXT.append(_check(driver.cuDevicePrimaryCtxRetain(device)))
    _check(driver.cuCtxSetCurrent(_CONTEXT[0]))
    return _CONTEXT[0]


def compute_capability() -> tuple[int, int]:
    """Device 0's compute capability, e.g. (9, 0): which PTX target its driver can load."""
    driver = _driver()
    context()
    device = _check(driver.cuCtxGetDevice())
    attribute, get = driver.CUdevice_attribute, driver.cuDeviceGetAttribute
    major = _check(get(attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device))
    minor = _check(get(attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device))
    return major, minor


def available() -> bool:
    try:
        context()
    except GpuUnavailable:
        return False
    return True


class GpuFunction:
    """A loaded Program; call it with arrays like a JitFunction."""

    def __init__(self, program: Program):
        driver = _driver()
        context()
        self.program = program
        names = {s.kernel for s in program.steps if isinstance(s, Launch)}
        self._module = _check(driver.cuModuleLoadData(program.ptx.encode() + b"\0")) if names else None
        self._kernels = {n: _check(driver.cuModuleGetFunction(self._module, n.encode())) for n in names}
        for step in program.steps:  # over 48 KiB of dynamic shared memory is opt-in, per kernel
            if isinstance(step, Launch) and step.shared_bytes > _DEFAULT_SHARED:
                attribute = driver.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
                _check(driver.cuFuncSetAttribute(self._kernels[step.kernel], attribute, step.shared_bytes))
        self._stream = _check(driver.cuStreamCreate(0))
        self._owned = {b: _check(driver.cuMemAlloc(n)) for b, n in program.buffer_bytes.items()}
        for buffer, data in program.constants.items():
            _check(driver.cuMemcpyHtoD(self._owned[buffer], data, len(data)))
        count = len(program.inputs) + len(program.outputs)
        self._arguments: dict[int, int] = {}  # argument buffer → its device pointer this call
        self._staging = [None] * count
        self._key: tuple | None = None  # the argument pointers the packed steps and graph are for
        self._packed: list[tuple] = []
        self._graph = None

    def _pointer(self, buffer: int) -> int:
        if buffer in self._owned:
            return int(self._owned[buffer])
        return self._arguments[buffer]

    def _device_buffer(self, index: int, nbytes: int) -> int:
        """A device buffer of the function's own for argument `index` (NumPy in/out)."""
        staged = self._staging[index]
        if staged is None or staged[1] < nbytes:
            staged = (_check(_driver().cuMemAlloc(max(1, nbytes))), nbytes)
            self._staging[index] = staged
        return int(staged[0])

    def __call__(self, *arrays):
        program, driver = self.program, _driver()
        if len(arrays) != len(program.inputs):
            raise ValueError(f"{program.name} takes {len(program.inputs)} inputs, got {len(arrays)}")
        context()
        on_device = any(hasattr(a, "__cuda_array_interface__") for a in arrays)
        outputs = [_empty(spec, arrays) for spec in program.outputs] if on_device else None
        for index, array in enumerate(arrays):
            spec = program.inputs[index]
            if hasattr(array, "__cuda_array_interface__"):
                self._arguments[index] = _cuda_pointer(array, spec, index)
                continue
            host = np.asarray(array, order="C")  # (ascontiguousarray makes 0-d arrays 1-d)
            if host.shape != tuple(spec.shape) or host.dtype != np.dtype(spec.dtype):
                got = f"{host.dtype}{list(host.shape)}"
                raise ValueError(f"argument {index} must be {spec.dtype}{list(spec.shape)}, got {got}")
            pointer = self._device_buffer(index, host.nbytes)
            _check(driver.cuMemcpyHtoDAsync(pointer, host.ctypes.data, host.nbytes, self._stream))
            self._arguments[index] = pointer
        first = len(program.inputs)
        host_outputs = [] if on_device else [np.empty(s.shape, s.dtype) for s in program.outputs]
        for k, spec in enumerate(program.outputs):
            if on_device:
                self._arguments[first + k] = _cuda_pointer(outputs[k], spec, first + k)
            else:
                self._arguments[first + k] = self._device_buffer(first + k, host_outputs[k].nbytes)
        self._run()
        if on_device:
            _check(driver.cuStreamSynchronize(self._stream))
            return outputs
        for k, host in enumerate(host_outputs):
            pointer = self._arguments[first + k]
            _check(driver.cuMemcpyDtoHAsync(host.ctypes.data, pointer, host.nbytes, self._stream))
        _check(driver.cuStreamSynchronize(self._stream))
        return host_outputs

    def _run(self) -> None:
        """Issue every step on the stream: as one CUDA graph launch once the argument buffers
        are known (a replay costs one launch, not one per kernel), else step by step."""
        driver = _driver()
        key = tuple(self._pointer(i) for i in range(len(self.program.inputs) + len(self.program.outputs)))
        if key != self._key:
            self._key, self._graph = key, None
            self._packed = [self._pack(step) for step in self.program.steps]
            if len(self._packed) > 1:
                self._graph = self._capture()
        if self._graph is not None:
            _check(driver.cuGraphLaunch(self._graph, self._stream))
            return
        self._issue()

    def _issue(self) -> None:
        driver = _driver()
        for step in self._packed:
            if step[0] == "copy":
                _check(driver.cuMemcpyDtoDAsync(*step[1:], self._stream))
                continue
            _, kernel, grid, block, shared, params, _values = step
            _check(
                driver.cuLaunchKernel(
                    kernel, *grid, *block, shared, self._stream, ctypes.addressof(params), 0
                )
            )

    def _capture(self):
        """The steps recorded as a CUDA graph, or None where capturing is not possible."""
        driver = _driver()
        mode = driver.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_THREAD_LOCAL
        try:
            _check(driver.cuStreamBeginCapture(self._stream, mode))
        except RuntimeError:
            return None
        try:
            self._issue()
        finally:
            graph = _check(driver.cuStreamEndCapture(self._stream))
        return _check(driver.cuGraphInstantiate(graph, 0))

    def _pack(self, step: Launch | Copy) -> tuple:
        if isinstance(step, Copy):
            target = self._pointer(step.target.buffer) + step.target.offset * step.itemsize
            source = self._pointer(step.source.buffer) + step.source.offset * step.itemsize
            return ("copy", target, source, step.nbytes)
        values = [v for arg in step.args for v in self._kernel_values(arg)]
        params = (ctypes.c_void_p * max(1, len(values)))(*[ctypes.addressof(v) for v in values])
        kernel = self._kernels[step.kernel]
        return ("launch", kernel, step.grid, step.block, step.shared_bytes, params, values)

    def _kernel_values(self, arg: View | Scalar) -> list:
        """A memref argument expands to its descriptor: allocated, aligned, offset, sizes, strides."""
        if isinstance(arg, Scalar):
            return [_CTYPES[arg.ctype](arg.value)]
        pointer = self._pointer(arg.buffer)
        fields = [ctypes.c_void_p(pointer), ctypes.c_void_p(pointer), ctypes.c_int64(arg.offset)]
        return fields + [ctypes.c_int64(n) for n in (*arg.sizes, *arg.strides)]

    def time(self, arrays: Sequence, repeat: int) -> list[float]:
        """Seconds per call measured with CUDA events on the stream (after one warm-up call)."""
        driver = _driver()
        self(*arrays)
        start, stop = _check(driver.cuEventCreate(0)), _check(driver.cuEventCreate(0))
        times = []
        for _ in range(repeat):
            _check(driver.cuEventRecord(start, self._stream))
            self._run()
            _check(driver.cuEventRecord(stop, self._stream))
            _check(driver.cuEventSynchronize(stop))
            times.append(_check(driver.cuEventElapsedTime(start, stop)) / 1e3)
        return times


def _cuda_pointer(array, spec, index: int) -> int:
    info = array.__cuda_array_interface__
    if tuple(info["shape"]) != tuple(spec.shape) or np.dtype(info["typestr"]) != np.dtype(spec.dtype):
        raise ValueError(f"argument {index} must be {spec.dtype}{list(spec.shape)}")
    if info.get("strides") not in (None, _contiguous_strides(spec)):
        raise ValueError(f"argument {index} must be contiguous")
    pointer = int(info["data"][0])
    if pointer % 16:  # kernels load rows as 16-byte vectors: a misaligned one is a CUDA fault
        raise ValueError(f"argument {index} must be 16-byte aligned (a view at an offset? pass a copy)")
    return pointer


def _contiguous_strides(spec) -> tuple[int, ...]:
    strides, step = [], np.dtype(spec.dtype).itemsize
    for size in reversed(spec.shape):
        strides.append(step)
        step *= size
    return tuple(reversed(strides))


def _empty(spec, like):
    """An output on the device, of the same library as the inputs (torch when they are torch)."""
    for array in like:
        if type(array).__module__.startswith("torch"):
            import torch  # noqa: PLC0415

            return torch.empty(tuple(spec.shape), dtype=getattr(torch, spec.dtype), device=array.device)
    raise TypeError("device outputs need torch CUDA tensors as inputs")
