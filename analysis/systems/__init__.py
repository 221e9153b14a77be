"""One module per game system: ``tristat``, ``onesix``, ``tun``, ``kurs``."""
