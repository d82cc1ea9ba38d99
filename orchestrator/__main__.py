import logging
import os
import signal
import sys

try:
    from .cli import main

    code = main()
    sys.stdout.flush()
except KeyboardInterrupt:
    # Ctrl-C in a command with no handling of its own (the sweep handles its own): one
    # line, never a traceback; a second Ctrl-C while leaving changes nothing.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    print("\ninterrupted", file=sys.stderr)
    code = 130
except BrokenPipeError:
    # The reader went away (`tasks | head`): not an error of ours. Python's documented
    # recipe: point stdout at devnull so the flush at exit does not raise again.
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    code = 1
if "ray" in sys.modules:
    # A Ray driver: the sweep closed what it opened and left the cluster; the interpreter's
    # teardown (Ray's and gRPC's threads, a few thousand modules) would cost ~0.3 s of CPU
    # for nothing, twice what a single-host run's costs (#22 bench).
    sys.stderr.flush()
    logging.shutdown()
    os._exit(code)
sys.exit(code)
