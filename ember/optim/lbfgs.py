"""L-BFGS: a quasi-Newton method that builds its step from the last few gradient differences, with an
optional strong-Wolfe line search (after Mark Schmidt's minFunc, as torch.optim.LBFGS)."""

from .._backend import np
from .._tensor import Tensor, new_tensor
from .optimizer import Optimizer, add_scaled_, check_lr, scalar

__all__ = ["LBFGS"]


def _cubic_minimum(x1, f1, g1, x2, f2, g2, bounds=None):
    """The minimiser of the cubic through two points with values f and slopes g, kept within `bounds`
    (by default the interval between the points); their midpoint when the cubic has no minimum."""
    low, high = bounds if bounds is not None else ((x1, x2) if x1 <= x2 else (x2, x1))
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    d2_square = d1**2 - g1 * g2
    if d2_square >= 0:
        d2 = np.sqrt(d2_square)
        if x1 <= x2:
            position = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
        else:
            position = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
        return min(max(position, low), high)
    return (low + high) / 2.0


class _Point:
    """One trial of the line search: step length t, loss f, flat gradient g and slope gtd = g . d."""

    __slots__ = ("t", "f", "g", "gtd")

    def __init__(self, t, f, g, gtd):
        self.t, self.f, self.g, self.gtd = t, f, g, gtd


def _strong_wolfe(evaluate, t, d, f, g, gtd, c1=1e-4, c2=0.9, tolerance_change=1e-9, max_ls=25):
    """Find a step length t along d that satisfies the strong Wolfe conditions: sufficient decrease
    f(t) <= f + c1 t gtd and a flat enough slope |g(t) . d| <= -c2 gtd.

    First grow t until an interval is known to hold such a point (bracketing), then shrink the interval
    by safeguarded cubic interpolation (zoom). `evaluate(t)` returns (loss, flat gradient) at x + t d.
    Returns (loss, flat gradient, t, number of evaluations).
    """
    d_norm = np.abs(d).max()
    start = _Point(0, f, g.copy(), gtd)
    previous = start
    f_new, g_new = evaluate(t)
    evaluations = 1
    current = _Point(t, f_new, g_new, g_new.dot(d))
    bracket, done = None, False
    iteration = 0
    while iteration < max_ls:
        if current.f > f + c1 * current.t * gtd or (iteration > 1 and current.f >= previous.f):
            bracket = [previous, _Point(current.t, current.f, current.g.copy(), current.gtd)]
            break
        if abs(current.gtd) <= -c2 * gtd:
            bracket, done = [current], True
            break
        if current.gtd >= 0:
            bracket = [previous, _Point(current.t, current.f, current.g.copy(), current.gtd)]
            break
        # Extrapolate: the cubic's minimum, between a little beyond t and ten times t.
        t_next = _cubic_minimum(
            previous.t,
            previous.f,
            previous.gtd,
            current.t,
            current.f,
            current.gtd,
            bounds=(current.t + 0.01 * (current.t - previous.t), current.t * 10),
        )
        previous = _Point(current.t, current.f, current.g.copy(), current.gtd)
        f_new, g_new = evaluate(t_next)
        evaluations += 1
        current = _Point(t_next, f_new, g_new, g_new.dot(d))
        iteration += 1
    if iteration == max_ls:
        bracket = [start, current]

    def low_high():
        return (0, 1) if bracket[0].f <= bracket[-1].f else (1, 0)

    low, high = low_high()
    insufficient_progress = False
    while not done and iteration < max_ls:
        lower, upper = min(bracket[0].t, bracket[1].t), max(bracket[0].t, bracket[1].t)
        if abs(bracket[1].t - bracket[0].t) * d_norm < tolerance_change:
            break
        t = _cubic_minimum(bracket[0].t, bracket[0].f, bracket[0].gtd, bracket[1].t, bracket[1].f, bracket[1].gtd)
        # Keep t at least 10% of the interval away from its ends, unless the last trial already moved
        # well inside (then one trial near an end is allowed).
        margin = 0.1 * (upper - lower)
        if min(upper - t, t - lower) < margin:
            if insufficient_progress or t >= upper or t <= lower:
                t = upper - margin if abs(t - upper) < abs(t - lower) else lower + margin
                insufficient_progress = False
            else:
                insufficient_progress = True
        else:
            insufficient_progress = False
        f_new, g_new = evaluate(t)
        evaluations += 1
        trial = _Point(t, f_new, g_new.copy(), g_new.dot(d))
        iteration += 1
        if trial.f > f + c1 * t * gtd or trial.f >= bracket[low].f:
            bracket[high] = trial  # not enough decrease: the new point bounds the interval from above
            low, high = low_high()
        else:
            if abs(trial.gtd) <= -c2 * gtd:
                done = True
            elif trial.gtd * (bracket[high].t - bracket[low].t) >= 0:
                bracket[high] = bracket[low]  # the slope says the minimum lies on the other side
            bracket[low] = trial
    best = bracket[low]
    return best.f, best.g, best.t, evaluations


def _pack(value):
    """A NumPy value of the algorithm as the tensor PyTorch keeps in the state (lists item by item)."""
    if isinstance(value, list):
        return [_pack(item) for item in value]
    if isinstance(value, np.ndarray):
        return new_tensor(value)
    if isinstance(value, np.generic):
        return new_tensor(np.asarray(value))
    return value


def _unpack(value):
    """The inverse of `_pack`: tensors back to arrays, 0-d ones to NumPy scalars."""
    if isinstance(value, list):
        return [_unpack(item) for item in value]
    if isinstance(value, Tensor):
        return value._data[()] if value._data.ndim == 0 else value._data
    return value


class LBFGS(Optimizer):
    """`torch.optim.LBFGS`: each `step(closure)` runs up to `max_iter` quasi-Newton iterations.

    The direction is -H g, with H the inverse-Hessian estimate from the last `history_size` pairs
    (s = step taken, y = change of gradient), applied by the two-loop recursion; the step length is
    `lr` (the first iteration ever is scaled by 1/|g|_1), or found by a strong-Wolfe line search with
    `line_search_fn="strong_wolfe"`. Iterations stop early when the largest gradient entry falls to
    `tolerance_grad`, when the step or the loss changes by less than `tolerance_change`, or after
    `max_eval` loss evaluations (default `max_iter * 5 // 4`).

    The closure must clear the gradients, compute the loss, call `backward()` and return the loss:

        def closure():
            optimizer.zero_grad()
            loss = loss_fn(model(x), y)
            loss.backward()
            return loss
        optimizer.step(closure)

    All parameters form a single group. The state, kept under the first parameter, has PyTorch's keys
    (`func_evals`, `n_iter`, `d`, `t`, `old_dirs`, `old_stps`, `ro`, `H_diag`, `prev_flat_grad`,
    `prev_loss`, `al`).
    """

    def __init__(
        self,
        params,
        lr=1,
        max_iter=20,
        max_eval=None,
        tolerance_grad=1e-7,
        tolerance_change=1e-9,
        history_size=100,
        line_search_fn=None,
    ):
        check_lr(lr)
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        defaults = dict(
            lr=lr,
            max_iter=max_iter,
            max_eval=max_eval,
            tolerance_grad=tolerance_grad,
            tolerance_change=tolerance_change,
            history_size=history_size,
            line_search_fn=line_search_fn,
        )
        super().__init__(params, defaults)
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")

    @property
    def _params(self):
        return self.param_groups[0]["params"]

    # ----------------------------------------------------------------- flat views of all parameters
    def _flat_grad(self):
        """All gradients in one vector (zeros for a parameter without one)."""
        return np.concatenate(
            [
                np.zeros(param._data.size, param._data.dtype) if param._grad is None else param._grad._data.reshape(-1)
                for param in self._params
            ]
        )

    def _move(self, t, direction):
        """params += t * direction, the flat direction cut back into the parameters' shapes."""
        offset = 0
        for param in self._params:
            data = param._data
            add_scaled_(data, t, direction[offset : offset + data.size].reshape(data.shape))
            offset += data.size
            self._updated(param)

    def _restore(self, saved):
        for param, data in zip(self._params, saved):
            param._data[...] = data
            self._updated(param)

    def _loss_and_grad_at(self, closure, origin, t, direction):
        """Loss and flat gradient at origin + t * direction; the parameters are put back afterwards."""
        self._move(t, direction)
        loss = float(self._evaluate(closure))
        flat_grad = self._flat_grad()
        self._restore(origin)
        return loss, flat_grad

    # ----------------------------------------------------------------- step
    def step(self, closure):
        """Run up to `max_iter` iterations; returns the loss the closure gave at the starting point."""
        if closure is None or not callable(closure):
            raise TypeError(
                "LBFGS.step() needs a closure that clears the gradients, computes the loss, calls "
                "backward() and returns the loss: LBFGS evaluates the loss several times per step"
            )
        group = self.param_groups[0]
        lr, max_iter, max_eval = scalar(group["lr"]), group["max_iter"], group["max_eval"]
        tolerance_grad, tolerance_change = group["tolerance_grad"], group["tolerance_change"]
        line_search_fn, history_size = group["line_search_fn"], group["history_size"]

        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)
        original_loss = self._evaluate(closure)
        loss = float(original_loss)
        current_evals = 1
        state["func_evals"] += 1
        flat_grad = self._flat_grad()
        if np.abs(flat_grad).max() <= tolerance_grad:
            return original_loss  # already optimal

        keys = ("d", "t", "H_diag", "old_dirs", "old_stps", "ro", "prev_flat_grad", "al")
        d, t, H_diag, old_dirs, old_stps, ro, prev_flat_grad, al = (_unpack(state.get(key)) for key in keys)
        prev_loss = state.get("prev_loss")
        n_iter = 0
        while n_iter < max_iter:
            n_iter += 1
            state["n_iter"] += 1
            if state["n_iter"] == 1:
                d = -flat_grad
                old_dirs, old_stps, ro = [], [], []
                H_diag = 1
            else:
                y = flat_grad - prev_flat_grad
                s = d * t
                ys = y.dot(s)
                if ys > 1e-10:  # keep the pair only if the curvature along s is positive
                    if len(old_dirs) == history_size:
                        del old_dirs[0], old_stps[0], ro[0]
                    old_dirs.append(y)
                    old_stps.append(s)
                    ro.append(1.0 / ys)
                    H_diag = ys / y.dot(y)
                if al is None:
                    al = [None] * history_size
                d = self._two_loop(flat_grad, old_dirs, old_stps, ro, H_diag, al)
            if prev_flat_grad is None:
                prev_flat_grad = flat_grad.copy()
            else:
                prev_flat_grad[...] = flat_grad
            prev_loss = loss
            t = min(1.0, 1.0 / np.abs(flat_grad).sum()) * lr if state["n_iter"] == 1 else lr
            gtd = flat_grad.dot(d)
            if gtd > -tolerance_change:
                break  # not a descent direction (any more)

            evaluations, optimal = 0, False
            if line_search_fn is not None:
                if line_search_fn != "strong_wolfe":
                    raise RuntimeError(
                        f"only 'strong_wolfe' is supported as LBFGS line_search_fn, got {line_search_fn!r}"
                    )
                origin = [param._data.copy() for param in self._params]
                loss, flat_grad, t, evaluations = _strong_wolfe(
                    lambda step_length: self._loss_and_grad_at(closure, origin, step_length, d),
                    t,
                    d,
                    loss,
                    flat_grad,
                    gtd,
                    max_ls=max_eval - current_evals,
                )
                self._move(t, d)
                optimal = np.abs(flat_grad).max() <= tolerance_grad
            else:
                self._move(t, d)
                if n_iter != max_iter:
                    loss = float(self._evaluate(closure))
                    flat_grad = self._flat_grad()
                    optimal = np.abs(flat_grad).max() <= tolerance_grad
                    evaluations = 1
            current_evals += evaluations
            state["func_evals"] += evaluations
            if (
                n_iter == max_iter
                or current_evals >= max_eval
                or optimal
                or np.abs(d * t).max() <= tolerance_change
                or abs(loss - prev_loss) < tolerance_change
            ):
                break

        state.update(
            d=_pack(d),
            t=_pack(t),
            old_dirs=_pack(old_dirs),
            old_stps=_pack(old_stps),
            ro=_pack(ro),
            H_diag=_pack(H_diag),
            prev_flat_grad=_pack(prev_flat_grad),
            prev_loss=prev_loss,
        )
        if al is not None:
            state["al"] = _pack(al)
        return original_loss

    @staticmethod
    def _two_loop(flat_grad, old_dirs, old_stps, ro, H_diag, al):
        """-H g by the two-loop recursion over the stored (s, y) pairs; fills `al` as it goes."""
        q = -flat_grad
        for i in range(len(old_dirs) - 1, -1, -1):
            al[i] = old_stps[i].dot(q) * ro[i]
            add_scaled_(q, -al[i], old_dirs[i])
        r = q * H_diag
        for i in range(len(old_dirs)):
            be_i = old_dirs[i].dot(r) * ro[i]
            add_scaled_(r, al[i] - be_i, old_stps[i])
        return r
