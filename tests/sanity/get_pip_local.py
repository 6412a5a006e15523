"""Stand-in for ansible-test's downloaded pip bootstrap script (get-pip.py).

ansible-test fetches get-pip.py from a host this machine cannot reach; this file, copied to the
cache path ansible-test checks first, does the same job with the interpreter's own ensurepip and
then PyPI: it puts pip into the empty virtualenv and installs the requested packages.
"""
import subprocess
import sys

subprocess.check_call([sys.executable, "-m", "ensurepip", "--default-pip"], stdout=subprocess.DEVNULL)
args = [a for a in sys.argv[1:] if a not in ("--no-setuptools", "--no-wheel")]
subprocess.check_call([sys.executable, "-m", "pip", "install"] + args)
