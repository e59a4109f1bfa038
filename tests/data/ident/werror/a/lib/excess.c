int excess[1] = { 1, 2 };
