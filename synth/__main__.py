"""`python -m synth --seed 902 --out fixtures/demo`."""

import sys

from .case import main

sys.exit(main())
