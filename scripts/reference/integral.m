function q = integral(f, a, b)
  % MATLAB's integral evaluates the integrand on a row vector; Octave's would pass a column.
  q = quadgk(@(x) reshape(f(reshape(x, 1, [])), size(x)), a, b, 'AbsTol', 1e-12, 'RelTol', 1e-10);
end
