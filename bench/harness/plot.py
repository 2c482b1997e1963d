"""Quality against latency per system, one panel per query set (matplotlib)."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def draw(report, path):
    sets = list(report["sets"].items())
    fig, axes = plt.subplots(1, len(sets), figsize=(4.2 * len(sets), 4), squeeze=False)
    for ax, (name, per_system) in zip(axes[0], sets):
        ranked = "mrr@10" in next(iter(per_system.values()))
        for system, m in sorted(per_system.items()):
            y = m.get("mrr@10") if ranked else m.get("f1")
            x = m.get("p50_ms")
            if x is None or y is None:
                continue
            ax.scatter([max(x, 0.1)], [y], s=60 if system.startswith("ken") else 36,
                       marker="*" if system.startswith("ken") else "o")
            ax.annotate(system, (max(x, 0.1), y), textcoords="offset points", xytext=(4, 4), fontsize=8)
        ax.set_xscale("log")
        ax.set_xlabel("p50 latency per query (ms, log)")
        ax.set_ylabel("MRR@10" if ranked else "F1 (precision and recall of the set)")
        ax.set_ylim(0, 1.05)
        ax.set_title(name)
        ax.grid(alpha=0.3)
    fig.suptitle("Kenning and peers: quality against latency (" + report["started"] + ")", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    return path
