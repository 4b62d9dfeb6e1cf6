// The pages' only script, and nothing depends on it: copy buttons (the text is selectable anyway)
// and the progress of a file upload (the form posts as well without it). Its words come from the
// page (data-* attributes), where the pages' text is.
(function () {
  function enhance(root) {
    root.querySelectorAll('button[data-copy]').forEach(function (button) {
      var source = document.getElementById(button.getAttribute('data-copy'));
      var status = button.parentElement.querySelector('.copied');
      if (!source || !navigator.clipboard) return;
      button.hidden = false;
      button.addEventListener('click', function () {
        navigator.clipboard.writeText(source.value).then(
          function () { status.textContent = 'Copied.'; },
          function () { status.textContent = 'Copy failed: select the text and copy it.'; }
        );
      });
    });
    root.querySelectorAll('form[data-upload]').forEach(upload);
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

  enhance(document);
})();
