# -*- coding: utf-8 -*-
# Copyright: (c) 2026, teardown.gates contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""One error model for the collection: every exception class in plugins/ derives from ``TeardownGatesError``
(tests/unit/test_errors.py walks plugins/ and fails on one that does not), and ``fail_from`` is the one path
that turns a failure into the module's ``fail_json``.

An error carries, besides its message:

- ``unknown``: True when the failure left the state unestablished (a read with no answer, a client that
  could not be built). Such a state is never to be read as absent.
- ``partial``: a dict of whatever result exists at the point of failure; ``fail_from`` returns its keys.
- ``inspect``: what the user should look at next, when known; ``fail_from`` names it in the message.
"""
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import traceback


# what failed when a Kubernetes module cannot build its API client for an unforeseen reason (``fail_from``'s ``what``)
CLIENT_FAILED = "could not create the API client"


class TeardownGatesError(Exception):
    """The base of every exception raised by this collection's plugins.

    ``TeardownGatesError(*args, unknown=None, partial=None, inspect=None)``: ``args`` as for ``Exception``
    (``str(err)`` is the message); the keywords set the attributes, which otherwise keep their class's
    value (a subclass may declare ``unknown = True`` once for all its instances)."""

    unknown = False
    partial = None
    inspect = None

    def __init__(self, *args, **kwargs):
        unknown = kwargs.pop("unknown", None)
        partial = kwargs.pop("partial", None)
        inspect = kwargs.pop("inspect", None)
        if kwargs:
            raise TypeError("unexpected keyword argument(s): %s" % ", ".join(sorted(kwargs)))
        super(TeardownGatesError, self).__init__(*args)
        if unknown is not None:
            self.unknown = bool(unknown)
        if partial is not None:
            self.partial = dict(partial)
        if inspect is not None:
            self.inspect = inspect


def failure_message(err, what=None, then=None):
    """The message ``fail_from`` reports: ``[what: ]<err>[; then][; inspect: <err.inspect>]``.

    ``what`` names what failed (e.g. ``"delete"``, ``"could not create the API client"``), ``then`` says
    what follows from it (e.g. ``"nothing was changed"``)."""
    msg = "%s" % (err,)
    if what:
        msg = "%s: %s" % (what, msg)
    if then:
        msg = "%s; %s" % (msg, then)
    inspect = getattr(err, "inspect", None)
    if inspect:
        msg = "%s; inspect: %s" % (msg, inspect)
    return msg


def fail_from(module, err, what=None, then=None, **extra):
    """``module.fail_json`` for ``err``: the message from ``failure_message``, the keys of ``err.partial``
    and then ``extra`` (``extra`` wins over ``partial``; neither can replace ``msg``).

    An exception that is not a ``TeardownGatesError`` is one the collection did not foresee: its traceback
    is returned as ``exception`` (unless ``extra`` gives one), as the module's own ladders did."""
    result = dict(getattr(err, "partial", None) or {})
    result.update(extra)
    result.pop("msg", None)
    if not isinstance(err, TeardownGatesError) and "exception" not in result:
        result["exception"] = traceback.format_exc()
    module.fail_json(msg=failure_message(err, what=what, then=then), **result)
