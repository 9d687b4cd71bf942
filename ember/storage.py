"""`ember.storage` (torch.storage): the storage classes, for code that imports them from here."""

from ._storage import TypedStorage, UntypedStorage

__all__ = ["TypedStorage", "UntypedStorage"]
