"""L2-penalised logistic regression by Newton's method (iteratively reweighted least
squares), for the study's token classifier.

Why not scikit-learn: it is only a test dependency of the package, and a model of a
dozen features is a few lines of numpy; Newton's method run to a tight tolerance gives
the same coefficients on every machine and version, where an iterative solver's answer
moves with its tolerance. ``tests/validation`` checks the coefficients against
``sklearn.linear_model.LogisticRegression(C=1 / l2)``.

Objective (features standardised with the training mean and standard deviation, the
intercept not penalised)::

    sum_i [log(1 + exp(b + x_i w)) - y_i (b + x_i w)] + l2 / 2 * |w|^2
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Logistic:
    """A fitted model: standardisation, intercept and coefficients (standardised scale)."""

    mean: np.ndarray
    scale: np.ndarray
    intercept: float
    coef: np.ndarray
    l2: float
    iterations: int

    def decision(self, x: np.ndarray) -> np.ndarray:
        """``b + standardised(x) @ w``."""
        return self.intercept + ((np.asarray(x, np.float64) - self.mean) / self.scale) @ self.coef

    def predict(self, x: np.ndarray) -> np.ndarray:
        """Probabilities of the positive class."""
        return _sigmoid(self.decision(x))


def _sigmoid(z: np.ndarray) -> np.ndarray:
    out = np.empty_like(z)
    pos = z >= 0
    out[pos] = 1.0 / (1.0 + np.exp(-z[pos]))
    e = np.exp(z[~pos])
    out[~pos] = e / (1.0 + e)
    return out


def _objective(z: np.ndarray, y: np.ndarray, w: np.ndarray, l2: float) -> float:
    return float(np.sum(np.logaddexp(0.0, z) - y * z) + 0.5 * l2 * (w[1:] @ w[1:]))


def fit(x: np.ndarray, y: np.ndarray, *, l2: float = 1.0, tol: float = 1e-10,
        max_iter: int = 100) -> Logistic:
    """Fit by Newton steps with step halving until the largest step is below ``tol``.

    Constant features get scale 1 (their standardised value is 0, so their coefficient
    is 0 by the penalty).
    """
    x = np.asarray(x, np.float64)
    y = np.asarray(y, np.float64)
    if x.ndim != 2 or y.shape != (x.shape[0],):
        raise ValueError(f"Expected x of shape (n, p) and y of shape (n,), got {x.shape} "
                         f"and {y.shape}; fix by passing one label per row.")
    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale[scale == 0] = 1.0
    a = np.column_stack([np.ones(x.shape[0]), (x - mean) / scale])
    penalty = np.full(a.shape[1], l2)
    penalty[0] = 0.0
    w = np.zeros(a.shape[1])
    z = a @ w
    obj = _objective(z, y, w, l2)
    for it in range(1, max_iter + 1):
        p = _sigmoid(z)
        grad = a.T @ (p - y) + penalty * w
        hess = (a * (p * (1 - p))[:, None]).T @ a + np.diag(penalty)
        step = np.linalg.solve(hess, grad)
        t = 1.0
        while True:
            w_new = w - t * step
            z_new = a @ w_new
            obj_new = _objective(z_new, y, w_new, l2)
            if obj_new <= obj + 1e-12 * abs(obj) or t < 1e-8:
                break
            t /= 2
        w, z, obj = w_new, z_new, obj_new
        if np.max(np.abs(t * step)) < tol:
            return Logistic(mean, scale, float(w[0]), w[1:].copy(), l2, it)
    raise ValueError(f"Expected Newton's method to converge within {max_iter} steps, got "
                     f"a last step of {np.max(np.abs(t * step)):.3g}; fix by raising l2.")
