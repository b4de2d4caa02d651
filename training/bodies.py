"""Networks suited to each observer's shape: the body that embeds an observation, and
where the seat's own hand is in it.

A flat observer gets an MLP. An observer with card planes (``planes``: channels x 4 suits
x 13 ranks) gets a small CNN: one convolution across the suits of each rank (pairs,
triples, quads), a convolution along the ranks of those (runs: straights), one along
each suit's row (flushes and straight flushes), then the MLP over those maps and the
observer's other pieces. The choice follows the observer's declared pieces, so a user's
own planes observer gets the CNN too.

``body="gru"`` reads an observer's move history as a sequence instead (DouZero reads its
last moves with an LSTM): :class:`SequenceBody` runs a GRU over the moves actually made,
oldest first, and the MLP reads its last state beside the observer's other pieces. Any
observer with a piece of move rows (one row per move, with a ``seat`` field; empty rows
are zeros and come first, as in ``history``) can be read so.

The actor's action scorer describes each play by what it leaves in the hand, so it needs
the hand's 52 card bits: :class:`HandReader` finds them in any registered observer (the
``hand`` piece, the ``hand`` channel of the planes, or the rank and suit one-hots of
``charlesworth``'s hand slots).

>>> import observers
>>> make_body(observers.make("planes"), (64, 32))(torch.zeros(2, 385)).shape
torch.Size([2, 32])
>>> make_body(observers.make("history"), (64, 32), "gru")(torch.zeros(2, 1073)).shape
torch.Size([2, 32])
>>> reader = HandReader(observers.make("planes"))
>>> reader(torch.ones(1, 385)).shape
torch.Size([1, 52])
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise

import torch
from torch import nn

from big2.cards import N_CARDS, rank_of, suit_of
from observers.base import Observer, Piece

RANK_MAPS, RUN_MAPS, SUIT_MAPS = 32, 32, 16  # feature maps of the planes CNN
SEQUENCE_STATE = 128  # the GRU's state: what the MLP reads of the move history
BODIES = ("auto", "gru")  # auto: the CNN for card planes, else the MLP
# how the actor scores each legal action from its features (training.nets.ActionScorer)
ACTION_HEADS = ("dot", "mlp", "fused")


def mlp(sizes: Sequence[int]) -> nn.Sequential:
    """Linear layers with ReLU between them (and after the last)."""
    layers: list[nn.Module] = []
    for a, b in pairwise(sizes):
        layers += [nn.Linear(a, b), nn.ReLU()]
    return nn.Sequential(*layers)


def planes_piece(observer: Observer) -> Piece | None:
    """The observer's card planes: its one piece shaped (channels, 4, 13), if any."""
    found = [p for p in observer.pieces if len(p.shape) == 3 and p.shape[1:] == (4, 13)]
    return found[0] if found else None


def sequence_piece(observer: Observer) -> Piece | None:
    """The observer's move rows: its one piece shaped (moves, width) with a ``seat``
    field, if any."""
    found = [p for p in observer.pieces if len(p.shape) == 2 and "seat" in p.columns()]
    return found[0] if found else None


def make_body(observer: Observer, hidden: Sequence[int], kind: str = "auto") -> nn.Module:
    """The body for ``observer``'s observations: (B, size) -> (B, hidden[-1]).

    ``kind`` is one of :data:`BODIES`; ``"gru"`` needs an observer with move rows
    (:func:`sequence_piece`) and raises ``ValueError`` naming the observer otherwise.
    """
    if kind not in BODIES:
        raise ValueError(f"body must be one of {BODIES}, got {kind!r}")
    if kind == "gru":
        return SequenceBody(observer, hidden)
    if planes_piece(observer) is not None:
        return PlanesBody(observer, hidden)
    return mlp([observer.size, *hidden])


def _split(observer: Observer, piece: Piece) -> tuple[range, list[int]]:
    """The positions of ``piece`` in the observation, and those of everything else."""
    start = observer.offsets[piece.name]
    inside = range(start, start + piece.size)
    return inside, [i for i in range(observer.size) if i not in inside]


class PlanesBody(nn.Module):
    """A small CNN over an observer's card planes, then an MLP with its other pieces."""

    def __init__(self, observer: Observer, hidden: Sequence[int]) -> None:
        super().__init__()
        piece = planes_piece(observer)
        if piece is None:
            raise ValueError(f"observer {observer.name!r} has no (channels, 4, 13) card planes")
        self.shape = piece.shape
        planes, rest = _split(observer, piece)
        self.register_buffer("planes", torch.tensor(planes), persistent=False)
        self.register_buffer("rest", torch.tensor(rest, dtype=torch.long), persistent=False)
        channels, suits, ranks = piece.shape
        self.by_rank = nn.Sequential(nn.Conv2d(channels, RANK_MAPS, (suits, 1)), nn.ReLU())
        self.runs = nn.Sequential(nn.Conv1d(RANK_MAPS, RUN_MAPS, 5, padding=2), nn.ReLU())
        self.by_suit = nn.Sequential(
            nn.Conv2d(channels, SUIT_MAPS, (1, 5), padding=(0, 2)), nn.ReLU()
        )
        width = (RANK_MAPS + RUN_MAPS) * ranks + SUIT_MAPS * suits * ranks + len(rest)
        self.mlp = mlp([width, *hidden])

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        planes = x[:, self.planes].view(-1, *self.shape)  # type: ignore[index]
        ranks = self.by_rank(planes).squeeze(2)  # (B, RANK_MAPS, 13)
        maps = [ranks, self.runs(ranks), self.by_suit(planes)]
        flat = torch.cat([m.flatten(1) for m in maps] + [x[:, self.rest]], 1)  # type: ignore[index]
        out: torch.Tensor = self.mlp(flat)
        return out


class SequenceBody(nn.Module):
    """A GRU over an observer's move rows, then an MLP over its last state and the
    observer's other pieces.

    Only the moves made reach the GRU: the zero rows that pad a short history are left
    out (each row's moves are shifted to the front and packed by length), so an empty
    history reads as a zero state and a move's embedding does not depend on how much
    padding sits before it.
    """

    def __init__(self, observer: Observer, hidden: Sequence[int]) -> None:
        super().__init__()
        piece = sequence_piece(observer)
        if piece is None:
            raise ValueError(
                f"observer {observer.name!r} has no move rows to read as a sequence (a piece "
                f"shaped (moves, width) with a 'seat' field, as in 'history'); use body 'auto'"
            )
        moves, rest = _split(observer, piece)
        self.shape = piece.shape
        self.register_buffer("moves", torch.tensor(moves), persistent=False)
        self.register_buffer("rest", torch.tensor(rest, dtype=torch.long), persistent=False)
        self.gru = nn.GRU(piece.shape[1], SEQUENCE_STATE, batch_first=True)
        self.mlp = mlp([SEQUENCE_STATE + len(rest), *hidden])

    def read(self, rows: torch.Tensor) -> torch.Tensor:
        """Move rows (B, K, width), zero rows first -> the GRU's last state (B, STATE)."""
        k = rows.shape[1]
        made = rows.abs().sum(-1) > 0  # (B, K): a move, not padding
        lengths = made.sum(1)
        # row b's moves are its last lengths[b] rows: rotate them to the front
        shift = (torch.arange(k, device=rows.device) + (k - lengths)[:, None]) % k
        front = rows.gather(1, shift[:, :, None].expand_as(rows))
        packed = nn.utils.rnn.pack_padded_sequence(
            front, lengths.clamp(min=1).cpu(), batch_first=True, enforce_sorted=False
        )
        last: torch.Tensor = self.gru(packed)[1][0]  # (B, STATE)
        return last * (lengths > 0)[:, None]

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        rows = x[:, self.moves].view(-1, *self.shape)  # type: ignore[index]
        flat = torch.cat([self.read(rows), x[:, self.rest]], 1)  # type: ignore[index]
        out: torch.Tensor = self.mlp(flat)
        return out


class HandReader(nn.Module):
    """Observations (B, size) -> the seat's hand as 52 card bits (B, 52), for any observer
    that holds the hand: a ``hand`` piece, a ``hand`` channel of card planes, or
    ``charlesworth``'s hand slots (one rank and one suit one-hot per card)."""

    def __init__(self, observer: Observer) -> None:
        super().__init__()
        offsets, pieces = observer.offsets, {p.name: p for p in observer.pieces}
        planes = planes_piece(observer)
        # charlesworth's slots: (start, rows, width, rank column, suit column)
        self.slots: tuple[int, int, int, int, int] | None = None
        index: list[int] = []
        if "hand" in offsets:
            index = [offsets["hand"] + card for card in range(N_CARDS)]
        elif planes is not None and getattr(observer, "CHANNELS", ())[:1] == ("hand",):
            start = offsets[planes.name]  # channel 0 is the hand; card c at (suit, rank)
            index = [start + 13 * suit_of(c) + rank_of(c) for c in range(N_CARDS)]
        elif "hand_slots" in pieces and {"rank", "suit"} <= set(pieces["hand_slots"].columns()):
            piece = pieces["hand_slots"]
            rows, width = piece.shape
            columns = piece.columns()
            rank, suit = columns["rank"].start, columns["suit"].start
            self.slots = (offsets[piece.name], rows, width, rank, suit)
        else:
            raise ValueError(
                f"observer {observer.name!r} shows no hand the action scorer can read "
                f"(a 'hand' piece, a 'hand' plane or charlesworth's hand slots); pass "
                f"--no-action-rest"
            )
        self.register_buffer("index", torch.tensor(index, dtype=torch.long), persistent=False)

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        if self.slots is None:
            return obs[:, self.index]  # type: ignore[index]
        start, rows, width, rank, suit = self.slots
        slots = obs[:, start : start + rows * width].view(-1, rows, width)
        ranks, suits = slots[:, :, rank : rank + 13], slots[:, :, suit : suit + 4]
        return torch.einsum("bsr,bsu->bru", ranks, suits).flatten(1)  # card = 4 * rank + suit
