"""The userspace path: hot-plugged NICs configured by a hot-plug handler,
with no module parameter (the guest's handler files live here too)."""
