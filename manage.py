#!/usr/bin/env python
import os
import sys


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "portal.settings.base")
    # Commands (migrations, imports) may run long statements: no limit unless one is set. The
    # web's 20 s (portal/settings/base.py) is for requests.
    os.environ.setdefault("DB_STATEMENT_TIMEOUT", "0")
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
