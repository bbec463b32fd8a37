import sys

from lsp.main import run_stdio

sys.exit(run_stdio())
