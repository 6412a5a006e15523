# -*- coding: utf-8 -*-
# Copyright: teardown.gates contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""One file per teardown kind; ``registry.KINDS`` lists them (see docs/development.md, "Add a teardown kind")."""
