"""The name the user's code imported ember under: "ember", or "torch" while `ember.compat` is
installed. The few reprs that PyTorch prints with a module path (a custom Function's node,
`set_grad_enabled(mode=True)`) use it, so a notebook run with `import torch` prints what PyTorch prints."""

package = "ember"
