"""``python -m xlapy`` runs the command line."""

import sys

from xlapy.cli import main

sys.exit(main())
