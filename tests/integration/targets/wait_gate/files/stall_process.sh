#!/bin/sh
# Make a process stop answering for a while (SIGSTOP), then resume it (SIGCONT): the stall case's proxy in front of
# the API server, so that nothing else on the sandbox stalls with it.
# usage: stall_process.sh PIDFILE DELAY SECONDS
pid=$(cat "$1")
sleep "$2"
kill -STOP "$pid"
echo "stopped $pid at $(date -u +%H:%M:%S.%N)"
sleep "$3"
kill -CONT "$pid"
echo "resumed $pid at $(date -u +%H:%M:%S.%N)"
