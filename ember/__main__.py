"""`python -m ember`: a short demo; `python -m ember run script.py [args]`: run a PyTorch script on ember.

python -m ember                          # the book's examples: a custom Function, its graph,
                                         # a gradient check, a second derivative
python -m ember run train.py --epochs 3  # train.py's `import torch` resolves to ember
python -m ember run -m package.module    # the same for a module, as `python -m`
"""

import os
import runpy
import sys

USAGE = """usage: python -m ember                      run a short demo of ember's autograd
       python -m ember run SCRIPT [ARGS...]   run a PyTorch script with `import torch` resolving to ember
       python -m ember run -m MODULE [ARGS...]   the same for a module (like python -m)"""


def run(target, args, as_module=False):
    """Run a script (or module) written for PyTorch with ember behind `import torch`; sys.argv as given."""
    from . import compat

    compat.install()
    run_plain(target, args, as_module)


def run_plain(target, args, as_module=False):
    """Run a script (or module) as `python script.py` would, with sys.argv as given."""
    if as_module:
        sys.argv = [target] + list(args)
        sys.path.insert(0, os.getcwd())
        _as_python_reports(lambda: runpy.run_module(target, run_name="__main__", alter_sys=True))
        return
    if not os.path.isfile(target):
        raise SystemExit(f"python -m ember run: can't open file {target!r}: no such file")
    path = os.path.abspath(target)  # Python names the main script by its absolute path (__file__, tracebacks)
    sys.argv = [target] + list(args)
    sys.path.insert(0, os.path.dirname(path))  # as `python script.py` does
    _as_python_reports(lambda: runpy.run_path(path, run_name="__main__"))


def _as_python_reports(run_script):
    """Run the script; an uncaught exception is printed as `python script.py` prints it, the traceback
    starting in the script (without this runner's and runpy's frames), and exits with status 1."""
    try:
        run_script()
    except Exception as error:
        traceback = error.__traceback__
        while traceback is not None and _is_runner_frame(traceback.tb_frame):
            traceback = traceback.tb_next
        if traceback is not None:
            error.with_traceback(traceback)  # Python prints the exception's own traceback
        sys.excepthook(type(error), error, error.__traceback__)
        raise SystemExit(1) from None


def _is_runner_frame(frame):
    filename = frame.f_code.co_filename
    return filename in (__file__, runpy.__file__) or filename.startswith("<frozen runpy")


def demo():
    """The book's examples, end to end: what a newcomer should see working first."""
    import ember
    from ember.autograd import Function, gradcheck
    from ember._examples import MultiplyAdd

    print("1. A custom Function: z = MultiplyAdd(w, x, b) = w * x + b")
    x = ember.ones(1)
    w = ember.rand(1, requires_grad=True)
    b = ember.rand(1, requires_grad=True)
    z = MultiplyAdd.apply(w, x, b)
    z.backward()
    print(f"   z = {z}\n   w.grad = {w.grad}, b.grad = {b.grad}, x.grad = {x.grad}")

    print("\n2. Its graph (what backward walks):")
    from ember.viz import print_graph

    print_graph(z, {"w": w, "b": b})

    class Sigmoid(Function):
        @staticmethod
        def forward(ctx, input):
            output = 1 / (1 + ember.exp(-input))
            ctx.save_for_backward(output)
            return output

        @staticmethod
        def backward(ctx, grad_output):
            (output,) = ctx.saved_tensors
            return grad_output * output * (1 - output)

    print("\n3. gradcheck of a custom Sigmoid Function (float64, finite differences vs backward):")
    inputs = ember.randn(3, 4, dtype=ember.float64, requires_grad=True)
    print(f"   gradcheck(Sigmoid.apply, (x,)) = {gradcheck(Sigmoid.apply, (inputs,), eps=1e-6, atol=1e-4)}")

    print("\n4. Second derivative with create_graph=True: y = x ** 2 at x = 5")
    x = ember.tensor([5.0], requires_grad=True)
    y = x**2
    (dy_dx,) = ember.autograd.grad(y, x, create_graph=True)
    (d2y_dx2,) = ember.autograd.grad(dy_dx, x)
    print(f"   dy/dx = {dy_dx}\n   d2y/dx2 = {d2y_dx2}")
    print("\nRun PyTorch scripts on ember with: python -m ember run script.py [args]")


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv:
        demo()
        return 0
    if argv[0] in ("-h", "--help", "help"):
        print(USAGE)
        return 0
    if argv[0] != "run" or len(argv) < 2 or (argv[1] == "-m" and len(argv) < 3):
        print(USAGE, file=sys.stderr)
        return 2
    if argv[1] == "-m":
        run(argv[2], argv[3:], as_module=True)
    else:
        run(argv[1], argv[2:])
    return 0


if __name__ == "__main__":
    sys.exit(main())
