"""Utilities: hook handles and data loading (`ember.utils.data`)."""
