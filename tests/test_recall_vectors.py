"""Stored vectors and the exact top-k scan (pure)."""

import numpy as np

from unimem.embeddings import normalized
from unimem.recall.vectors import from_bytes, to_bytes, top_k


def test_a_vector_survives_its_stored_form():
    vector = normalized([[3.0, 4.0]])[0]
    assert np.array_equal(from_bytes(to_bytes(vector)), vector)
    assert len(to_bytes(np.zeros(384, dtype=np.float32))) == 1536


def test_top_k_ranks_by_cosine_and_skips_vectors_of_another_length():
    query = np.array([1.0, 0.0, 0.0], dtype=np.float32)
    blobs = [
        to_bytes(normalized([[0.0, 1.0, 0.0]])[0]),
        to_bytes(normalized([[1.0, 1.0, 0.0]])[0]),
        to_bytes(np.array([1.0, 0.0], dtype=np.float32)),  # another model's length
        to_bytes(query),
    ]
    assert [i for i, _ in top_k(query, blobs, 10)] == [3, 1, 0]
    assert [i for i, _ in top_k(query, blobs, 1)] == [3]
    assert top_k(query, [], 5) == [] and top_k(query, blobs, 0) == []
    assert round(top_k(query, blobs, 2)[1][1], 4) == round(1 / np.sqrt(2), 4)
