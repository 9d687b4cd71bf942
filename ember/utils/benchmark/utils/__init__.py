"""The modules behind `ember.utils.benchmark`, at the paths PyTorch uses (`torch.utils.benchmark.utils.
common`, `.timer`, `.compare`), so deep imports and pickled Measurements resolve under `ember run`."""
