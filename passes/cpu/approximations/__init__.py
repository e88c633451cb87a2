"""Branch-free polynomial approximations of f32 math (versa-fast-math)."""
