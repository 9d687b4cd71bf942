"""ember.nn.functional: the functional forms of layers, activations and losses."""
