% The table in cobra_experiments/wong_reece_reference.py, from an implementation of Wong & Reece
% (1967) that we did not write: WheelSoil.m of github.com/melanz/wheel-soil (commit f1118b2),
% run in GNU Octave (Debian: apt install octave). Put WheelSoil.m beside this file, then
%   octave-cli --no-gui -q wong_reece_octave.m
% WheelSoil.m runs unchanged; integral.m here only makes Octave evaluate its integrands on a row
% vector, as MATLAB's integral does (Octave 7.3 was used). fsolve keeps its defaults: the load is
% met to about 1e-6 of W.
% Pressure: Reece's k_eq (z/b)^n = Bekker's (k_c/b + k_phi) z^n with k_eq = (k_c/b + k_phi) b^n.
cases = {
  % name,               k_c,      k_phi,     n,     c,      phi,   K,        W,      r,    b,    c1,   c2,   slips
  'wheel_soil_example', 0.0,      2.54e5 / 0.16^1.387, 1.387, 139.28, 34.74, 5.15e-4, 130.0, 0.13, 0.16, 0.43, 0.32, [0.1 0.3 0.6];
  'loose_sand',         25.0,     50000.0,   0.6,   25.0,   28.0,  0.04,     58.86,  0.20, 0.12, 0.4,  0.15, [0.0 0.1 0.3 0.6];
  'lete_sand',          102000.0, 5301000.0, 0.79,  1300.0, 31.1,  0.01,     1530.0, 0.20, 0.12, 0.4,  0.15, [0.0 0.1 0.3 0.6];
  'clayey_soil',        13190.0,  692150.0,  0.5,   4140.0, 13.0,  0.01,     760.0,  0.20, 0.12, 0.4,  0.15, [0.0 0.1 0.3 0.6]};
for k = 1:size(cases, 1)
  [name, kc, kphi, n, c, phi, K, W, r, b, c1, c2, slips] = cases{k, :};
  keq = (kc / b + kphi) * b^n;
  for s = slips
    wheel = WheelSoil(s, keq, n, c, phi, K, c1, c2, W, r, b, 0);
    [H, R, D, T, z] = wheel.calculateWheelPerformance(s, keq, n, c, phi * pi / 180, K, c1, c2, W, r, b, 0, 0.5);
    printf('%s slip %.2f: sinkage %.10g m, drawbar pull %.10g N, torque %.10g N m\n', name, s, z, D, T);
  end
end
