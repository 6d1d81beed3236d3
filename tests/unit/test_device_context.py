"""``with xpshim.device(...)`` holds in its own thread and asyncio task only (a ContextVar)."""

import asyncio
import threading

import numpy

import xpshim


def test_device_block_holds_in_its_block_only(cpu):
    before = xpshim.get_device()
    with xpshim.device("cpu"):
        assert xpshim.get_device() == "cpu"
        assert type(xpshim.zeros(3)) is numpy.ndarray
    assert xpshim.get_device() == before


def test_other_threads_keep_the_process_default(gpu):
    seen = {}
    with xpshim.device("cpu"):
        t = threading.Thread(target=lambda: seen.setdefault("dev", xpshim.get_device()))
        t.start()
        t.join()
        assert xpshim.get_device() == "cpu"
    assert seen["dev"] == "gpu"


def test_asyncio_tasks_do_not_see_each_others_blocks(gpu):
    async def in_cpu_block(started, release):
        with xpshim.device("cpu"):
            started.set()
            await release.wait()
            return xpshim.get_device(), type(xpshim.zeros(2)) is numpy.ndarray

    async def plain(started, release):
        await started.wait()
        dev = xpshim.get_device()
        release.set()
        return dev, type(xpshim.zeros(2)) is numpy.ndarray

    async def main():
        started, release = asyncio.Event(), asyncio.Event()
        return await asyncio.gather(in_cpu_block(started, release), plain(started, release))

    (dev_a, host_a), (dev_b, host_b) = asyncio.run(main())
    assert (dev_a, host_a) == ("cpu", True)
    assert (dev_b, host_b) == ("gpu", False)


def test_nested_blocks_restore_in_order(gpu):
    with xpshim.device("cpu"):
        with xpshim.device("gpu"):
            assert xpshim.get_device() == "gpu"
        assert xpshim.get_device() == "cpu"
    assert xpshim.get_device() == "gpu"
