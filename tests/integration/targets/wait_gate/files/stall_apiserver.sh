#!/bin/sh
# Make the sandbox's kube-apiserver stop answering for a while (SIGSTOP), then resume it (SIGCONT).
# usage: stall_apiserver.sh DELAY SECONDS
pid=$(cat "$SANDBOX_HOME/run/kube-apiserver.pid")
sleep "$1"
kill -STOP "$pid"
echo "stopped $pid at $(date -u +%H:%M:%S.%N)"
sleep "$2"
kill -CONT "$pid"
echo "resumed $pid at $(date -u +%H:%M:%S.%N)"
