"""Platforms that run a module after passes: ``cpu`` (compiled kernels) lives in ``cpu/``;
the ``interpreter`` platform is ``xlapy.interpreter`` itself."""
