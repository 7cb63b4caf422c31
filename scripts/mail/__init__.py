# SPDX-License-Identifier: GPL-2.0
"""The series as mail: each set's cover letter (make cover-letter) and the
patches rewritten for the sender (make send-prep)."""
