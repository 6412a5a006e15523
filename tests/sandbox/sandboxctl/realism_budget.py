"""An account-wide EC2 request budget: token buckets per API action (tests/sandbox/spec/aws-layer.md, AWS-22).

EC2 throttles each account per Region with a token bucket per API action: every request takes one token,
the bucket refills at a fixed rate up to its size, and a request that finds it empty is answered 503
RequestLimitExceeded ("Request throttling for the Amazon EC2 API"). The bucket is the account's, so every
client of the account draws on it: two teardowns in one account slow each other down, and so do the
account's controllers.

The budget is off until set. When set, it counts the requests of its members (access key IDs), so that a
chaos campaign can share one budget among its concurrent runs and leave everything else (the sandbox's
controllers, the fault-free re-runs) alone. Classes follow the page's table:

  non-mutating  Describe*, Get*, List*, Search*: a bucket of 100, a refill of 20 per second
  mutating      every other action: a bucket of 200, a refill of 5 per second

``scale`` multiplies both (0.1: a bucket of 10 and 2 per second for a read), so that the sandbox's short
runs meet the limits that production fleets meet.

Control (realism.py serves it): POST /_sandbox/realism/budget {"scale": S, "members": [key IDs]} sets it
(again: replaces it), POST .../budget/members {"add": [..], "remove": [..]} changes its members, GET
.../budget shows buckets and hits per member, DELETE .../budget turns it off.
"""
import time

SOURCE = "https://docs.aws.amazon.com/ec2/latest/devguide/ec2-api-throttling.html"
CLASSES = {"non-mutating": (100.0, 20.0), "mutating": (200.0, 5.0)}  # (bucket size, refill per second)
_READ_PREFIXES = ("Describe", "Get", "List", "Search")


def action_class(action):
    return "non-mutating" if action.startswith(_READ_PREFIXES) else "mutating"


class Budget:
    def __init__(self, scale=1.0, members=(), clock=time.monotonic):
        if not 0 < float(scale) <= 10:
            raise ValueError("scale must be in (0, 10], not %r" % (scale,))
        self.scale = float(scale)
        self.members = set(members)
        self.clock = clock
        self.buckets = {}  # (region, action) -> [tokens, last refill time]
        self.hits = {}     # key ID -> requests answered RequestLimitExceeded
        self.taken = 0

    def _size_and_rate(self, action):
        size, rate = CLASSES[action_class(action)]
        return max(1.0, size * self.scale), rate * self.scale

    def take(self, region, action, key_id):
        """True when the request may go on; False when the account's bucket for the action is empty."""
        if key_id not in self.members:
            return True
        size, rate = self._size_and_rate(action)
        now = self.clock()
        tokens, last = self.buckets.get((region, action), (size, now))
        tokens = min(size, tokens + (now - last) * rate)
        if tokens < 1.0:
            self.buckets[(region, action)] = (tokens, now)
            self.hits[key_id] = self.hits.get(key_id, 0) + 1
            return False
        self.buckets[(region, action)] = (tokens - 1.0, now)
        self.taken += 1
        return True

    def describe(self):
        return {"scale": self.scale, "members": sorted(self.members), "hits": dict(self.hits), "taken": self.taken,
                "classes": {k: {"bucket": max(1.0, s * self.scale), "refill_per_second": r * self.scale}
                            for k, (s, r) in CLASSES.items()},
                "buckets": {"%s/%s" % k: round(v[0], 2) for k, v in sorted(self.buckets.items())},
                "source": SOURCE}
