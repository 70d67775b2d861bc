"""Code generation of the ``cpu`` platform: HLO fusions, elementwise ops, reductions and while
loops emitted as readable numba source (element generators composed through indexing maps,
one loop emitter), compiled with numba and cached on disk. Kernel factories live in
``xlapy.backend.cpu.kernels``."""
