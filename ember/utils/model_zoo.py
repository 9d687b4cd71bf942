"""`torch.utils.model_zoo`: the old name of the hub's weight loader."""

from ..hub import load_state_dict_from_url as load_url

__all__ = ["load_url"]
