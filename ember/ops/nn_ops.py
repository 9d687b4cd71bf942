"""Neural-network primitives behind `ember.nn.functional`: convolution, pooling, softmax, losses, ..."""

__all__ = []
# The functions here that are also tensor methods (`x.softmax(dim)`).
METHODS = ()
