"""Kernel factories of the ``cpu`` platform, one module per op family; each registers with
``xlapy.backend.cpu.kernel.kernel_for``."""
