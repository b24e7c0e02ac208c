"""Run with `python3 -m unittest`."""
import unittest

import main


class HelloTest(unittest.TestCase):
    def test_greets_by_name(self):
        self.assertEqual(main.hello({"name": "Ada"}, None), "Hello, Ada!")

    def test_is_registered(self):
        self.assertIn("hello", main.PLUGIN["tools"])


if __name__ == "__main__":
    unittest.main()
