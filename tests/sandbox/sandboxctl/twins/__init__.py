"""Controller twins: watch-driven stand-ins for controllers that cannot run here (no kubelet, no
cloud). Each is test equipment: it never imports the collection. `sandbox up` starts those listed
in cli.TWINS as processes (`python -m sandboxctl.twins.<name>`), with the sandbox's environment."""
