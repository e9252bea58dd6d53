"""``python -m triage`` is the ``triage`` command."""

import sys

from triage.cli import main

sys.exit(main())
