# -*- coding: utf-8 -*-
"""Faults injected into the re-typed 8x V100-SXM2 fixtures (tests/fixtures/nvidia_smi/*-layout.*), and the
re-typed dcgmi diag outputs (tests/fixtures/dcgm/), shared by the unit tests of gpu_health and the lab test's
stand-in nvidia-smi and dcgmi."""

from __future__ import annotations

from tests.unit.plugins.source_fixture import FIXTURES, source_fixture

V100_XML = "v100-sxm2-8gpu-580-layout.xml"
V100_NVLINK = "nvlink-s-8xv100-sxm2-layout.txt"
_LINK_UP = "\t Link %d: 25.781 GB/s"


def v100_xml():
    """nvidia-smi -q -x of a healthy node of 8 V100-SXM2 (its source on line 2)."""
    text = (FIXTURES / "nvidia_smi" / V100_XML).read_text(encoding="utf-8")
    assert text.splitlines()[1].startswith("<!-- source: https://github.com/")
    return text


def v100_nvlink():
    """nvidia-smi nvlink -s of the same node, every link up."""
    return source_fixture("nvidia_smi", V100_NVLINK)


def dcgm_diag(name):
    """A tests/fixtures/dcgm/ fixture's dcgmi output, without its '#' header (its source on line 1)."""
    text = source_fixture("dcgm", name)
    return "\n".join(line for line in text.splitlines() if not line.startswith("#")) + "\n"


def replace_in_gpu(text, bus, old, new):
    """``old`` -> ``new`` inside the <gpu> element of PCI bus ``bus`` (e.g. "3D") only."""
    start = text.index('<gpu id="00000000:%s:00.0">' % bus)
    end = text.index("</gpu>", start)
    block = text[start:end]
    assert old in block, (bus, old)
    return text[:start] + block.replace(old, new) + text[end:]


def drop_gpu(text, bus):
    """The XML without the GPU of PCI bus ``bus`` (a GPU that fell off the bus)."""
    start = text.index('\t<gpu id="00000000:%s:00.0">' % bus)
    end = text.index("</gpu>\n", start) + len("</gpu>\n")
    count = text.count("<gpu id=") - 1
    return (text[:start] + text[end:]).replace("<attached_gpus>8<", "<attached_gpus>%d<" % count)


def retirement_pending(text, bus):
    """One double-bit error over the GPU's life, its page retired and pending (Xid 48 then 63 on a V100)."""
    text = replace_in_gpu(text, bus, "<pending_retirement>No", "<pending_retirement>Yes")
    aggregate_dbe = "<cbu>0</cbu>\n\t\t\t\t\t<total>0</total>\n\t\t\t\t</double_bit>\n\t\t\t</aggregate>"
    text = replace_in_gpu(text, bus, aggregate_dbe, aggregate_dbe.replace("<total>0<", "<total>1<"))
    retired = "<double_bit_retirement>\n\t\t\t\t<retired_count>0<"
    return replace_in_gpu(text, bus, retired, retired.replace(">0<", ">1<"))


def link_down(text, gpu, link):
    """nvidia-smi nvlink -s text with link ``link`` of GPU ``gpu`` down."""
    start = text.index("GPU %d:" % gpu)
    at = text.index(_LINK_UP % link, start)
    return text[:at] + "\t Link %d: <inactive>" % link + text[at + len(_LINK_UP % link) :]


def drop_nvlink_gpu(text, gpu):
    """nvidia-smi nvlink -s text without the block of GPU ``gpu`` (the last one printed)."""
    return text[: text.index("GPU %d:" % gpu)]
