"""The one version string of andar-bahar."""

__version__ = "0.1.0"
