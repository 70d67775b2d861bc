"""Eval functions, one module per op family; each registers with ``@evaluates(Opcode.X)``.

Every module in this package is imported by ``xlapy.interpreter.evaluator.load_evaluators``.
"""
