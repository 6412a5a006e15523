"""The embedded sandbox: a real Kubernetes control plane, moto behind our AWS layer, twins."""
