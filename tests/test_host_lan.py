"""``sagani host --lan``: it advertises only a host the LAN can reach, and says why not otherwise.

No test here sends multicast: a host bound to 127.0.0.1 is refused before zeroconf starts.
"""

import subprocess
import sys


def test_host_lan_on_loopback_is_refused_with_a_reason(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "cli.main", "host", "--lan", "--port", "0",
         "--data-dir", str(tmp_path)],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 2
    assert "--lan" in done.stderr and "--bind 0.0.0.0" in done.stderr
