"""What a run is told and what its stream's header says: watch()'s options
checked, the models and their layers, the embedding whose spectrum is
taken, and the header (meta) of docs/formats.md built from them."""

import uuid

import torch

from . import histogram
from .sites import unwatched
from .stream import rfc3339
from .warn import warn

# precision= → the dtype statistics are taken in (None: the input's own, float32 at least)
ACCS = {"float64": torch.float64, "float32": torch.float32, "input": None}


def check_options(every, spectrum_every, momentum, precision):
    """Raises ValueError for an option out of range; returns precision's dtype."""
    if not isinstance(every, int) or every < 1:
        raise ValueError(f"normtop: every={every!r}: want an integer ≥ 1")
    if not isinstance(spectrum_every, int) or spectrum_every < 0:
        raise ValueError(f"normtop: spectrum_every={spectrum_every!r}: want an integer ≥ 0 (0 = off)")
    if not 0 < momentum <= 1:
        raise ValueError(f"normtop: momentum={momentum!r}: want 0 < m ≤ 1")
    if precision not in ACCS:
        raise ValueError(f"normtop: precision={precision!r}; valid: input, float64, float32")
    return ACCS[precision]


def check_models(models):
    """{variant name: model} for a model or a dict of them; ValueError for
    none or for a TorchScript module."""
    if isinstance(models, torch.nn.Module):
        models = {type(models).__name__: models}
    if not models:
        raise ValueError("normtop: no model to watch")
    for m in models.values():
        if isinstance(m, torch.jit.ScriptModule):
            raise ValueError("normtop: the model is a TorchScript module (torch.jit.script or trace), which "
                             "takes no Python hooks; watch the eager model (call watch() before scripting, "
                             "or train the eager copy)")
    return models


def layer_names(variants):
    """Every variant's layers, in first-seen order; ValueError for none."""
    layers = []
    for v in variants:
        for s in v.sites:
            if s.name not in layers:
                layers.append(s.name)
    if not layers:
        like = {c: n for v in variants for c, n in unwatched(v.model, v.sites).items()}
        hint = f" ({_named(like)}: say their kind with {_kinds_hint(like)})" if like else ""
        raise ValueError("normtop: found no normalization module (LayerNorm, BatchNorm, GroupNorm, "
                         f"InstanceNorm, RMSNorm){hint}; name yours with modules=[...] or kinds={{Class: kind}}")
    return layers


def _named(like, most=6):
    """Module names of {class: [names]}, at most `most` of them."""
    names = [n for ns in like.values() for n in ns]
    more = f" and {len(names) - most} more" if len(names) > most else ""
    return ", ".join(names[:most]) + more


def _kinds_hint(like):
    return "kinds={" + ", ".join(f"{c}: KIND" for c in like) + "}"


def warn_unwatched(variants):
    """One warning at watch() naming the norm-like modules that are not
    watched (sites.norm_like) and how to watch them, and one naming the
    watched ones that can never be measured (Site.unmeasurable): never one
    per step."""
    like, never = {}, []
    for v in variants:
        for c, names in unwatched(v.model, v.sites).items():
            like.setdefault(c, [])
            like[c] += [n for n in names if n not in like[c]]
        never += [f"{s.name} ({s.unmeasurable()})" for s in v.sites if s.unmeasurable()]
    if like:
        warn(f"normtop: {sum(len(n) for n in like.values())} modules look like normalization layers but are not "
             f"watched: {_named(like)} (class {', '.join(like)}); to watch them, "
             f"normtop.watch(model, path, {_kinds_hint(like)}) with KIND the normalization each computes: "
             "layernorm, rmsnorm, batchnorm, groupnorm or instancenorm")
    if never:
        warn(f"normtop: {len(never)} watched layers cannot be measured and get no values: {'; '.join(never)}")


def find_embedding(model, embedding):
    if embedding is False:
        return None
    if isinstance(embedding, torch.Tensor):
        return embedding
    if isinstance(embedding, torch.nn.Module):
        return embedding.weight
    if isinstance(embedding, str):
        return dict(model.named_modules())[embedding].weight
    for m in model.modules():
        if isinstance(m, torch.nn.Embedding):
            return m.weight
    return None


def layer_facts(variants, embeddings):
    """What the header says of each layer, so that a reader knows which
    layers keep running statistics and at what rate (report's start-up
    window), without guessing from the variant's name: layer.<name>.kind,
    .d (features normalized or channels), .momentum (BatchNorm's own
    rate; "cumulative" for momentum=None), .eps; embedding_d and
    embedding_rows for the spectrum."""
    out = {}
    for v in variants:
        for s in v.sites:
            # A layer of several variants: each fact from the first variant
            # that has it (the kind from the first; the BatchNorm variant's
            # momentum even when a LayerNorm variant comes before it).
            key = f"layer.{s.name}."
            facts = {"kind": s.kind, "eps": repr(s.eps)}
            d = s.features()
            if d:
                facts["d"] = str(d)
            if s.has_running:
                m = getattr(s.module, "momentum", None)
                facts["momentum"] = "cumulative" if m is None else repr(float(m))
                if s.name in v.frozen_at_watch:  # fine-tuning's frozen BatchNorm
                    facts["frozen"] = "true"
            for k, val in facts.items():
                out.setdefault(key + k, val)
    emb = next((e for e in embeddings if e is not None), None)
    if emb is not None and emb.dim() == 2:
        out["embedding_rows"], out["embedding_d"] = str(emb.shape[0]), str(emb.shape[1])
    return out


def header(run, start, precision, rank, config, run_id, model_name, data, metric):
    """The stream's header for run (its variants, layers, embeddings and
    rates already set), started at start (UTC)."""
    cfg = {"source": "pytorch", "torch": torch.__version__, "probe_every": str(run.every),
           "spectrum_every": str(run.spectrum_every), "shadow_momentum": repr(run.momentum),
           "precision": precision}
    if rank is not None:
        cfg["rank"] = str(rank)
    cfg.update(layer_facts(run.variants, run.embeddings))
    for k, v in (config or {}).items():
        cfg[str(k)] = str(v)
    first = run.variants[0].model
    meta = {
        "RunID": run_id or start.strftime("%Y%m%d-%H%M%S-") + uuid.uuid4().hex[:6],
        "Model": model_name or "pytorch:" + type(first).__name__,
        "Data": data,
        "Metric": metric,
        "Variants": [{"Name": v.name, "Spec": v.name} for v in run.variants],
        "Layers": list(run.layers),
        "Start": rfc3339(start),
        "Config": cfg,
    }
    if run.hist_bins:
        meta["Histogram"] = histogram.layout(run.hist_bins)
    return meta
