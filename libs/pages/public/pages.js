// The pages' only script, and nothing depends on it: copy buttons (the text is selectable anyway),
// the light/dark toggle, blurring a secret until it is clicked (without the script it is plain)
// and the progress of a file upload (the form posts as well without it). Its words come from the
// page (data-* attributes), where the pages' text is, in the page's language. It is loaded in the
// head, so that a remembered theme applies before the page is painted; the rest waits for the page.
(function () {
  var THEME_KEY = 'pwpush-theme';
  var REBLUR_MS = 20000;
  var root = document.documentElement;
  // PWP__THEME_MODE light or dark sets data-theme on the page itself: then there is no choice to remember.
  var themeLocked = root.hasAttribute('data-theme');

  function storedTheme() {
    try {
      var theme = window.localStorage.getItem(THEME_KEY);
      return theme === 'light' || theme === 'dark' ? theme : null;
    } catch (e) {
      return null;
    }
  }
  if (!themeLocked && storedTheme()) root.setAttribute('data-theme', storedTheme());

  function currentTheme() {
    var theme = root.getAttribute('data-theme');
    if (theme) return theme;
    return window.matchMedia && window.matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
  }

  function themeToggle(button) {
    if (themeLocked) return;
    button.hidden = false;
    button.setAttribute('aria-pressed', String(currentTheme() === 'dark'));
    button.addEventListener('click', function () {
      var theme = currentTheme() === 'dark' ? 'light' : 'dark';
      root.setAttribute('data-theme', theme);
      button.setAttribute('aria-pressed', String(theme === 'dark'));
      try {
        window.localStorage.setItem(THEME_KEY, theme);
      } catch (e) {
        // Not remembered; this page still switches.
      }
    });
  }

  // A secret blurred until it is clicked (or reached with the keyboard), then blurred again after 20 s.
  function blur(field) {
    var hint = document.getElementById(field.getAttribute('aria-describedby'));
    var timer = null;
    var hide = function () { field.classList.add('blurred'); };
    var show = function () {
      field.classList.remove('blurred');
      window.clearTimeout(timer);
      timer = window.setTimeout(hide, REBLUR_MS);
    };
    hide();
    if (hint) hint.hidden = false;
    field.addEventListener('click', show);
    field.addEventListener('focus', show);
  }

  function enhance(scope) {
    var words = document.body.dataset;
    scope.querySelectorAll('button[data-copy]').forEach(function (button) {
      var source = document.getElementById(button.getAttribute('data-copy'));
      var status = button.parentElement.querySelector('.copied');
      if (!source || !navigator.clipboard) return;
      button.hidden = false;
      button.addEventListener('click', function () {
        navigator.clipboard.writeText(source.value).then(
          function () { status.textContent = words.copied; },
          function () { status.textContent = words.copyFailed; }
        );
      });
    });
    scope.querySelectorAll('textarea[data-blur]').forEach(blur);
    scope.querySelectorAll('form[data-upload]').forEach(upload);
  }

  // A file push sent by XMLHttpRequest, to say how far it is, after the limits the server would
  // refuse it for have been checked here (so nothing entered is lost). Its answer is a redirect to
  // the preview (followed), or the form again with what to correct, which takes this one's place.
  function upload(form) {
    var progress = form.querySelector('.progress');
    var input = form.querySelector('input[type="file"]');
    var error = form.querySelector('#files-error');
    if (!progress || !input || !error || !window.FormData || !window.XMLHttpRequest) return;
    var say = function (text) { progress.textContent = text; };
    form.addEventListener('submit', function (event) {
      event.preventDefault();
      var problem = tooMuch(input.files, progress);
      error.textContent = problem;
      error.hidden = !problem;
      input.setAttribute('aria-invalid', problem ? 'true' : 'false');
      if (problem) return input.focus();
      var button = form.querySelector('button[type="submit"]');
      var request = new XMLHttpRequest();
      request.open('POST', form.action);
      request.upload.addEventListener('progress', function (step) {
        if (step.lengthComputable) say(progress.getAttribute('data-uploading').replace('{percent}', Math.floor((step.loaded / step.total) * 100)));
      });
      request.addEventListener('load', function () {
        if (request.status === 200 && /\/preview$/.test(request.responseURL)) return window.location.assign(request.responseURL);
        var answer = new DOMParser().parseFromString(request.responseText, 'text/html');
        var main = answer.querySelector('main');
        document.title = answer.title;
        document.querySelector('main').replaceWith(main);
        enhance(main);
      });
      request.addEventListener('error', function () {
        button.disabled = false;
        say(progress.getAttribute('data-failed'));
      });
      button.disabled = true;
      say(progress.getAttribute('data-uploading').replace('{percent}', '0'));
      request.send(new FormData(form));
    });
  }

  function tooMuch(files, limits) {
    if (files.length > Number(limits.getAttribute('data-max-files'))) return limits.getAttribute('data-too-many');
    var largest = Number(limits.getAttribute('data-max-file-bytes'));
    for (var i = 0; i < files.length; i++) if (files[i].size > largest) return limits.getAttribute('data-too-large');
    return '';
  }

  document.addEventListener('DOMContentLoaded', function () {
    document.querySelectorAll('button.theme-toggle').forEach(themeToggle);
    enhance(document);
  });
})();
