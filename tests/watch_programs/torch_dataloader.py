"""A PyTorch training loop's input side: a DataLoader hands out batches of host tensors and the
loop moves each to the device with tensor.to("cuda"), as most training scripts do.

    xferlab watch -- python3 tests/watch_programs/torch_dataloader.py [--pin-memory]
"""
import argparse

from watch_common import Timer, report, size


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--pin-memory", action="store_true", help="DataLoader(pin_memory=True)")
    p.add_argument("--batch-bytes", type=size, default=size("64MiB"), help="bytes per batch")
    p.add_argument("--batches", type=int, default=16, help="batches per epoch")
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--workers", type=int, default=2, help="DataLoader(num_workers=)")
    args = p.parse_args()
    import torch
    from torch.utils.data import DataLoader, TensorDataset

    per_sample = 1 << 20  # 1 MiB of float32 per sample
    batch = max(1, args.batch_bytes // per_sample)
    data = torch.randn(batch * args.batches, per_sample // 4)
    labels = torch.zeros(batch * args.batches, dtype=torch.long)
    loader = DataLoader(TensorDataset(data, labels), batch_size=batch, shuffle=True,
                        num_workers=args.workers, pin_memory=args.pin_memory)
    moved = 0
    with Timer() as t:
        for _ in range(args.epochs):
            for x, y in loader:
                x = x.to("cuda", non_blocking=args.pin_memory)
                y = y.to("cuda", non_blocking=args.pin_memory)
                x.mul_(2)  # the "training step": touches the batch on the device
                moved += x.numel() * x.element_size() + y.numel() * y.element_size()
        torch.cuda.synchronize()
    report(f"pin_memory={args.pin_memory}", moved, t.seconds)


if __name__ == "__main__":
    main()
