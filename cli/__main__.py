"""`python -m supersheet.cli`: the `supersheet` command."""
import sys

from supersheet.cli.main import main

sys.exit(main())
