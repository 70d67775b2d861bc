"""Text formats of the IR: HLO text (``hlo_parser.parse_hlo``, ``hlo_printer.print_hlo``,
``literal_text``) and StableHLO (``stablehlo_parser``)."""
